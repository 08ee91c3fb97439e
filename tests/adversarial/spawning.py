"""Which attacks of this folder try to start processes (the leak check waits after them)."""

STARTS_PROCESSES = ('daemon', 'fork_flood', 'process_starts', 'leave_traces')
"""The attacks that try to start processes, or could (``leave_traces`` calls the C library
through ``ctypes``, for IPC objects): only a process one of them started could
outlive the sandbox and write later, so the check waits :data:`DAEMON_WAIT` seconds after
these before it looks (tests/adversarial/test_process_starts.py checks that no other
attack here names a way to start one)."""
DAEMON_WAIT = 0.3
PROCESS_WORDS = ('fork', 'spawn', 'Popen', 'subprocess', 'multiprocessing', 'system',
                 'execv', 'execl', 'pty', 'ctypes', 'daemon', 'clone')
"""Words a submission that starts a process would hold (``os.fork``, ``posix_spawn``,
``os.system``, ``os.execv``, a libc call through ``ctypes`` ...)."""
