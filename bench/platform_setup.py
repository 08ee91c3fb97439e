"""What a platform's install of the grader costs: the Gradescope zip and its install step.

    python bench/platform_setup.py [--repeats N] [--config grading.yaml]

Prints the size of the zip ``grader dist --gradescope`` writes (and its file count), and
the seconds of the grader's install as Gradescope's setup.sh runs it once Ubuntu's packages
are in (``install_grader.sh``: a fresh venv, ``pip install "$SOURCE[sandbox]"`` with the
search counter compiled, ``grader doctor --require-counter``), median of N fresh roots.  The
package index answers from pip's cache after the first run, as it does on a warm CI
machine; Gradescope's own build is slower on the network.  Each install is checked: the
counter must be in force in the venv it made.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def build_zip(config, target):
    done = subprocess.run([sys.executable, '-m', 'grader', '--config', str(config), 'dist',
                           '--gradescope', str(target), '--assignment', 'oulu-exercise-1'],
                          capture_output=True, text=True, cwd=ROOT)
    if done.returncode:
        raise SystemExit(done.stderr)
    with zipfile.ZipFile(target) as archive:
        return target.stat().st_size, len(archive.namelist())


def install_once(zip_path):
    """Seconds of install_grader.sh into a fresh root; the venv's counter is checked."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / 'autograder'
        with zipfile.ZipFile(zip_path) as archive:
            archive.extractall(root / 'source')
        env = {k: v for k, v in os.environ.items() if k not in ('PYTHONPATH', 'VIRTUAL_ENV')}
        env.update(GRADER_AUTOGRADER_ROOT=str(root), GRADER_SETUP_PYTHON=sys.executable)
        started = time.perf_counter()
        done = subprocess.run(['bash', str(root / 'source' / 'install_grader.sh')], env=env,
                              capture_output=True, text=True)
        seconds = time.perf_counter() - started
        if done.returncode or 'search counter: C' not in done.stdout:
            raise SystemExit(f'the install failed or has no counter:\n{done.stdout}\n'
                             f'{done.stderr}')
        return seconds


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--repeats', type=int, default=3)
    parser.add_argument('--config', default=str(ROOT / 'grading.yaml'))
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / 'autograder.zip'
        size, files = build_zip(args.config, target)
        print(f'Gradescope zip: {size / 1024:.0f} KiB, {files} files')
        times = [install_once(target) for _ in range(max(1, args.repeats))]
    print(f'install_grader.sh (venv, pip install with the counter compiled, doctor '
          f'--require-counter): median {statistics.median(times):.1f} s of '
          f'{", ".join(f"{t:.1f}" for t in times)}')


if __name__ == '__main__':
    main()
