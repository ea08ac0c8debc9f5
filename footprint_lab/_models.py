"""The one private place that touches pydantic's internals: trusted construction of frozen
models the library has just built from validated parts, and fields-sets shared between them.

Layer: bottom (below ``messages``; imports nothing from the package). The hot paths of the
window core and the ledger build tens of thousands of small frozen models (messages stamped
with their stage, refusals, records); validating values they have just computed from validated
parts would check what is already known, and pydantic's per-instance fields-sets would
outweigh the records themselves.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Generic, TypeVar, overload

from pydantic import BaseModel

__all__ = [
    "computed_once",
    "construct_trusted",
    "copy_trusted",
    "recompute",
    "share_fields_set",
    "stamp_computed",
    "update_trusted",
]


_T = TypeVar("_T")


class computed_once(Generic[_T]):
    """``functools.cached_property`` without its lock (Python 3.11 takes an ``RLock`` on every
    first read, which costs more than what a message computes): the value lands in the
    instance ``__dict__``, where every later read finds it at C speed. Messages are immutable,
    so two threads computing the same value at once store equal values."""

    def __init__(self, compute: Callable[[Any], _T]) -> None:
        self.compute = compute
        self.name = compute.__name__
        self.__doc__ = compute.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> computed_once[_T]: ...
    @overload
    def __get__(self, instance: object, owner: type | None = None) -> _T: ...
    def __get__(self, instance: object | None, owner: type | None = None) -> Any:
        if instance is None:
            return self
        value = instance.__dict__[self.name] = self.compute(instance)
        return value


_Model = TypeVar("_Model", bound=BaseModel)


def construct_trusted(cls: type[_Model], /, **values: Any) -> _Model:
    """An instance of the pydantic model ``cls`` holding ``values`` as they are, unvalidated.

    Only for the library's hot paths, with values it has just computed from parts that were
    validated when they were built (a refusal's turn index, a drop notice's text, a request's
    window): pydantic's ``model_construct`` costs more than validating such a small model, and
    validation there would check what is already known. ``values`` must name every field of
    ``cls``; the keyword dict becomes the instance's ``__dict__`` as it is (it is fresh at every
    call). A frozen model's instances share one fields-set; a model that may be assigned to
    gets its own (pydantic adds each assigned name to it).
    """
    known = _ALL_FIELDS.get(cls)
    if known is None:
        shared = _shared_set(cls.model_fields)
        known = _ALL_FIELDS[cls] = (shared, bool(cls.model_config.get("frozen")))
    fields_set, frozen = known
    if values.keys() != fields_set:
        missing, unknown = sorted(fields_set - values.keys()), sorted(values.keys() - fields_set)
        raise TypeError(
            f"construct_trusted({cls.__name__}) needs every field of the model and no other: "
            f"missing {missing}, unknown {unknown} (pass each field, its default too)"
        )
    return _install(object.__new__(cls), values, fields_set if frozen else set(fields_set))


def update_trusted(instance: BaseModel, /, **values: Any) -> None:
    """Set fields of a frozen instance the library has just built and not yet handed out, in
    place and unvalidated (values it computed from validated parts, e.g. the stage ids it read
    from a window)."""
    instance.__dict__.update(values)
    _SET_FIELDS_SET(instance, _shared_set(instance.__pydantic_fields_set__ | values.keys()))


def share_fields_set(instance: _Model) -> _Model:
    """``instance`` (a frozen pydantic model) with its fields-set replaced by the one every
    instance with the same set fields shares; returns it.

    Pydantic gives each instance (and each copy) a set of the names it was given: on a ledger
    of thousands of committed messages and records those sets outweigh the records
    themselves. A frozen model never changes its set (``model_copy`` copies it first).
    """
    own = instance.__pydantic_fields_set__
    shared = _shared_set(own)
    if shared is not own:
        _SET_FIELDS_SET(instance, shared)
    return instance


def _shared_set(names: Iterable[str]) -> set[str]:
    """The one fields-set every instance with these set fields shares (never mutated: each
    change to an instance's fields gets the shared set of its new names)."""
    key = frozenset(names)
    shared = _SHARED_FIELDS_SETS.get(key)
    if shared is None:
        shared = _SHARED_FIELDS_SETS[key] = set(key)
    return shared


def _install(instance: _Model, values: dict[str, Any], fields_set: set[str]) -> _Model:
    """Fill the slots of a pydantic instance made with ``object.__new__``: ``values`` become
    its ``__dict__`` as they are."""
    _SET_DICT(instance, values)
    _SET_FIELDS_SET(instance, fields_set)
    _SET_EXTRA(instance, None)
    _SET_PRIVATE(instance, None)
    return instance


# Each model's all-fields set (from the shared ones) and whether it is frozen, by model:
# construct_trusted's lookup.
_ALL_FIELDS: dict[type[BaseModel], tuple[set[str], bool]] = {}
# The fields-sets instances share, by the names they hold: a handful. A cold trim builds tens
# of thousands of refusals and a ledger commits thousands of copies, each of which would
# otherwise carry its own set for the collector to walk and the memory to hold.
_SHARED_FIELDS_SETS: dict[frozenset[str], set[str]] = {}

# The slots every pydantic model instance carries, set directly (a frozen model refuses
# ordinary attribute assignment).
_SET_DICT = BaseModel.__dict__["__dict__"].__set__
_SET_FIELDS_SET = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_SET_EXTRA = BaseModel.__dict__["__pydantic_extra__"].__set__
_SET_PRIVATE = BaseModel.__dict__["__pydantic_private__"].__set__


def copy_trusted(instance: _Model, /, **changes: Any) -> _Model:
    """A copy of the frozen ``instance`` with ``changes`` set, unvalidated: its fields as they
    are (what was validated when it was built), the shared fields-set of its names. Values it
    computed once (``computed_once``) are carried over: refresh those ``changes`` affect."""
    facts = dict(instance.__dict__)
    facts.update(changes)
    names = _shared_set(instance.__pydantic_fields_set__ | changes.keys())
    return _install(object.__new__(type(instance)), facts, names)


def stamp_computed(instance: BaseModel, /, **values: Any) -> None:
    """Give an instance the library has just built the values of its :class:`computed_once`
    attributes it already knows (a drop notice's size and shape), so no first read computes
    them again."""
    instance.__dict__.update(values)


def recompute(instance: BaseModel, /, *names: str) -> None:
    """Refresh, in order, the :class:`computed_once` values ``names`` that a copy carried over
    from its original (a value never computed stays uncomputed). Overwritten in place: a key
    overwritten keeps the copy's ``__dict__`` as it is, where one removed and added again can
    make it grow (a long run commits thousands of copies)."""
    facts = instance.__dict__
    owner = type(instance)
    for name in names:
        if name in facts:
            attribute = getattr(owner, name)
            assert isinstance(attribute, computed_once), f"{owner.__name__}.{name}"
            facts[name] = attribute.compute(instance)
