"""Sub-commands of the ``emc`` command line, one module per group.

Each module has ``register(subparsers)``, which adds its commands with
``set_defaults(func=handler)``. A handler takes the parsed arguments and returns the exit
status. To add a group, write the module and list it in :data:`MODULES`.
"""

MODULES = (
    "emc.commands.basic",
    "emc.commands.compile",
    "emc.commands.solve",
    "emc.commands.heuristics",
    "emc.commands.optimise",
    "emc.commands.slip",
    "emc.commands.campaign",
    "emc.commands.hardness",
)
