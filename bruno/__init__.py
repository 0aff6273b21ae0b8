"""The bruno application: the command line (`cli`, `commands/`), reviewing footage
(`review/`), live play (`live/`) and its dashboard (`dashboard/`)."""
