"""The process's own limits, which bound what one server can hold."""

import sys

if sys.platform != "win32":
    import resource


def open_files_soft_limit() -> int:
    """This process's soft limit of open files (a large number where there is none)."""
    if sys.platform == "win32":
        return 1 << 20
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return 1 << 20 if soft == resource.RLIM_INFINITY else int(soft)
