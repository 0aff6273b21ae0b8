"""The `bruno` subcommands, one module each."""
