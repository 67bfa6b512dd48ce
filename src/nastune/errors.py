"""The base of every failure nastune reports to a person rather than as a traceback.

Each stage raises its own subclass (LabError, TuneError, NasError, ...) with a message that names
the file, field or host; the command line prints the message and exits with `code`."""


class Failure(Exception):
    """A failure whose message says what failed and where; `code` is the exit status it calls
    for when it has one of its own (None: the command's usual failure status)."""

    code: int | None = None


class UsageError(Failure, ValueError):
    """What was asked cannot be done as asked: a bad option, file, field or value, named in the
    message (exit 2). Any other exception that reaches the command line is a bug: a traceback
    with -v."""

    code = 2
