"""Name -> factory registries: Settings picks each stage's implementation by name."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from gechat.errors import ConfigError

if TYPE_CHECKING:
    from gechat.settings import Settings

T = TypeVar("T")
Factory = Callable[..., T]  # (settings, **deps) -> component


class Registry(Generic[T]):
    """A small registry; factories take the Settings (and the stages they need) and build."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._factories: dict[str, Factory[T]] = {}

    def register(self, name: str) -> Callable[[Factory[T]], Factory[T]]:
        def deco(factory: Factory[T]) -> Factory[T]:
            self._factories[name] = factory
            return factory

        return deco

    def names(self) -> list[str]:
        return sorted(self._factories)

    def create(self, name: str, settings: Settings, /, **deps: Any) -> T:
        try:
            factory = self._factories[name]
        except KeyError:
            raise ConfigError(
                f"unknown {self.kind} {name!r}",
                hint=f"choose one of: {', '.join(self.names())}",
            ) from None
        return factory(settings, **deps)
