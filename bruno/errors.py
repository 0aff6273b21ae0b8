"""Errors meant for people: one line that says what is wrong and what to do."""


INCOMPLETE_EXIT_CODE = 3
"""The exit code of a command that read a damaged or cut-short file up to its break: what it
printed covers what came before the break."""


class UserError(Exception):
    """Bad input from the user (a file, a flag, a device). Printed as one line; exit code 2.

    The message should say what is wrong and what to do about it, e.g.
    "events.jsonl line 4: unknown card 'r_11' (cards are r_0..r_9, r_skip, ..., wild_draw_4)".
    """

    exit_code = 2
