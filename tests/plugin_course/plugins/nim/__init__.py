"""One-pile nim: a small exercise plug-in kept outside the grader (see README.md above)."""
