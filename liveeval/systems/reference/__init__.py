"""The built-in reference booking system (see ``turn.respond``)."""
