"""Which disguised copies the comparison misses: every obfuscation alone, and every set of three.

    python bench/obfuscation.py [--most 3] [--exercise tictactoe ...]

For each exercise, the class of tests/test_copy_obfuscation.py (every example
and test submission and the reference that parse; tests/copies for
tic-tac-toe): every original long enough for an exact copy to be listed is
copied with each set of exactly ``--most`` obfuscations of tests/obfuscate.py
(``--most 1``: each alone), and the copy is compared with its original.  A
copy is missed when it is not listed or when its share is not above the
largest share of a pair of the class's own files that is not listed (the
honest ceiling).  Prints, per exercise, the copies made, the copies missed by
set of obfuscations and the lowest share of a copy.  Not a timed test.
"""
import argparse
import collections
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for folder in (ROOT, ROOT / 'tests'):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))


def main():
    import obfuscate
    from grader.batch import similarity
    from test_copy_obfuscation import SETTINGS, TEMPLATES, the_class
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--most', type=int, default=3)
    parser.add_argument('--exercise', nargs='*', default=sorted(TEMPLATES))
    args = parser.parse_args()
    sets = [c for c in obfuscate.combinations(args.most) if len(c) == args.most]
    for exercise in args.exercise:
        boilerplate, files, ceiling = the_class(exercise)
        missed, made, lowest = collections.Counter(), 0, (2.0, '', ())
        for number, path in enumerate(sorted(files)):
            text, prints = files[path]
            for names in sets:
                copy, applied = obfuscate.disguised(text, names, seed=number)
                if not applied:
                    continue
                made += 1
                match = similarity.compare(prints, similarity.fingerprint(
                    copy, SETTINGS, boilerplate))
                share = max(match.share_a, match.share_b)
                lowest = min(lowest, (share, path, names))
                if share <= ceiling or not SETTINGS.flagged(match.share_a, match.share_b,
                                                            match.tokens):
                    missed[names] += 1
        print(f'{exercise}: {len(files)} originals, honest ceiling {ceiling:.2f}; {made} '
              f'copies, {sum(missed.values())} missed; lowest share {lowest[0]:.2f} '
              f'({lowest[1]}, {", ".join(lowest[2])})', flush=True)
        for names, count in missed.most_common():
            print(f'    {count:>5}  {", ".join(names)}')


if __name__ == '__main__':
    main()
