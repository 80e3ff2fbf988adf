"""The base of every spec model: strict types, unknown keys rejected, frozen."""

from pydantic import BaseModel, ConfigDict


class Strict(BaseModel):
    """Base: strict types, unknown keys rejected."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True, validate_default=True)

