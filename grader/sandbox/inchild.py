"""Isolation layers applied inside the child, before student code is imported.

Only the standard library (and, for seccomp, ``pyseccomp``) may be imported
here: this module runs in the sandboxed child.
"""
import resource

MIB = 1024 * 1024


def apply_rlimits(limits):
    """Set CPU (soft below hard), address space, file size, open files, core=0."""
    cpu = limits.get('cpu_seconds')
    if cpu:
        resource.setrlimit(resource.RLIMIT_CPU, (int(cpu), int(cpu) + 5))
    memory = limits.get('memory_mb')
    if memory:
        resource.setrlimit(resource.RLIMIT_AS, (memory * MIB, memory * MIB))
    fsize = limits.get('file_mb')
    if fsize is not None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize * MIB, fsize * MIB))
    nofile = limits.get('open_files')
    if nofile:
        resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    nproc = limits.get('processes')
    if nproc:
        resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))


def apply(layers):
    """Apply the in-child layers named in the hello message."""
    if 'rlimits' in layers:
        apply_rlimits(layers['rlimits'])
