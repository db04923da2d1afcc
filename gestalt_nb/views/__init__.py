"""Widget views. Each builds on ``TabbedView`` and draws graphs only through ``gestalt_nb.render``."""
