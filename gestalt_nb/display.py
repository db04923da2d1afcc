"""Results display as their view: ``show()`` builds it, and Jupyter asks the view for its MIME bundle."""

from __future__ import annotations

from typing import Any


class Shown:
    def show(self, **options: Any) -> Any:
        raise NotImplementedError

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return self.show()._repr_mimebundle_(include, exclude)
