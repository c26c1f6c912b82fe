"""League nights: the /league syntax and timeline (schedule), the nights service, the subcommands."""
