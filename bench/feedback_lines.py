"""How many lines ``grader check`` prints for every example submission, before and after
issue 43 (each failed position once, cause by cause).

Each file of tests/submissions (and the untouched student_template/, all three Oulu
files) is laid out as a student hands it in and checked once with ``grader check
--json``; the Result is then printed by the terminal report of an earlier commit
(``--before``, default a4904aa, the one issue 43 was measured on) and by the current one,
without and with ``--verbose``.  Prints a Markdown table::

    .venv/bin/python bench/feedback_lines.py [--before COMMIT] [--only tictactoe/bug_wrong_sign]
"""
import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader import model  # noqa: E402
from grader.report import terminal  # noqa: E402

FILES = {'tictactoe': 'tictactoe.py', 'connect4': 'connect4.py', 'eightpuzzle': 'eightpuzzle.py'}


def old_terminal(commit):
    """The terminal report module as it was at ``commit``."""
    source = subprocess.run(['git', 'show', f'{commit}:grader/report/terminal.py'], cwd=ROOT,
                            check=True, capture_output=True, text=True).stdout
    module = types.ModuleType('terminal_before')
    exec(compile(source, f'{commit}:grader/report/terminal.py', 'exec'), module.__dict__)
    return module


def submissions(only=None):
    """``(label, [(source, name in the folder)])`` for the template and every example."""
    template = ROOT / 'student_template'
    label = 'student_template/ (all three Oulu files)'
    if not only or only in label:
        yield label, [(template / n, n) for n in FILES.values()]
    for exercise in ('tictactoe', 'connect4', 'eightpuzzle', 'travel'):
        for path in sorted((ROOT / 'tests' / 'submissions' / exercise).iterdir()):
            if path.name == 'verdicts.yaml':
                continue
            label = f'{exercise}/{path.name}'
            if only and only not in label:
                continue
            yield label, [(path, '.' if path.is_dir() else FILES[exercise])]


def checked(files, folder):
    """The Result of ``grader check`` on a folder holding ``files``."""
    for source, name in files:
        if source.is_dir():
            shutil.copytree(source, folder, dirs_exist_ok=True)
        else:
            shutil.copy(source, folder / name)
    out = folder.parent / 'result.json'
    subprocess.run([sys.executable, '-m', 'grader', '--config', str(ROOT / 'grading.yaml'),
                    'check', str(folder), '--quiet', '--jobs', '1', '--json', str(out)],
                   cwd=folder.parent, check=True)
    return model.from_dict(json.loads(out.read_text()))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n', 1)[0])
    parser.add_argument('--before', default='a4904aa')
    parser.add_argument('--only', help='only the submissions whose label holds this text')
    args = parser.parse_args()
    before = old_terminal(args.before)
    print(f'| submission | before ({args.before}) | after | after, --verbose |')
    print('| --- | ---: | ---: | ---: |')
    for label, files in submissions(args.only):
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp) / 'submission'
            folder.mkdir()
            result = checked(files, folder)
        counts = [len(before.render(result).splitlines()),
                  len(terminal.render(result).splitlines()),
                  len(terminal.render(result, verbose=True).splitlines())]
        print(f'| {label} | ' + ' | '.join(map(str, counts)) + ' |', flush=True)


if __name__ == '__main__':
    main()
