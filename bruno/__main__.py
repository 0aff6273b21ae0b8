"""`python -m bruno` runs the command line."""

from bruno.cli import main

main()
