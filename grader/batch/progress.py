"""The progress bar of a batch: done, failed, left, and the time to go."""
import sys

BAR = ('{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} done '
       '[{elapsed}<{remaining}, {rate_fmt}{postfix}]')


class Progress:
    """A tqdm bar on stderr (silent when ``enabled`` is False)."""

    def __init__(self, total, enabled=None, desc='grading'):
        from tqdm import tqdm  # optional dependency: only for a progress bar
        if enabled is None:
            enabled = sys.stderr.isatty()
        self.total = total
        self.failed = 0
        self.done = 0
        self.bar = tqdm(total=total, desc=desc, unit='sub', disable=not enabled,
                        bar_format=BAR, dynamic_ncols=True, file=sys.stderr)
        self._postfix()

    def _postfix(self):
        self.bar.set_postfix_str(f'failed {self.failed}, left {self.total - self.done}',
                                 refresh=False)

    def update(self, failed=False):
        self.done += 1
        self.failed += bool(failed)
        self._postfix()
        self.bar.update(1)

    def close(self):
        self.bar.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
