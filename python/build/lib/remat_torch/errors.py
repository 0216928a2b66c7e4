"""Errors the command line turns into one line on stderr and exit status 2."""


class UsageError(Exception):
    """Bad input from the user: a SPEC, a shape, a plan, a missing dependency."""
