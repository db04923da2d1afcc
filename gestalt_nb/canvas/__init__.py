"""The interactive graph canvas: one anywidget drawing every view's ``Subgraph``."""

from .widget import GraphCanvas

__all__ = ["GraphCanvas"]
