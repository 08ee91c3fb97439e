"""Writers: one per output format, all reading the same :class:`grader.model.Result`."""
