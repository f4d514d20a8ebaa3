"""Which model serves which agent role.

Resolution order, per role: an explicit argument (``model_for_role`` then ``model``), the
configuration file (``[models]`` role key, then ``default``), the environment
(``BENCHSMITH_MODEL_<ROLE>``, then ``BENCHSMITH_MODEL``), then ``local`` (``local:reader``
for the reader role: :data:`~benchsmith.llm.specs.ROLE_DEFAULTS`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from benchsmith.config import FileConfig
from benchsmith.errors import ModelSpecError
from benchsmith.llm.specs import ROLE_DEFAULTS, ROLES, ModelSpec, Role, parse_model_spec


@dataclass(frozen=True)
class ResolvedModel:
    """The model of one role and where that choice came from."""

    role: Role
    spec: ModelSpec
    source: str


def resolve_role_models(
    *,
    model: str | None = None,
    role_models: Mapping[str, str] | None = None,
    file_config: FileConfig | None = None,
    env: Mapping[str, str] | None = None,
) -> dict[Role, ResolvedModel]:
    """Resolve the model of every role.

    Args:
        model: Explicit spec for every role (``--model``).
        role_models: Explicit spec per role (``--role-model judge=SPEC``).
        file_config: The configuration file's contents.
        env: The environment; defaults to ``os.environ``.

    Returns:
        Role to resolved model, for every role.

    Raises:
        ModelSpecError: A spec is malformed; the message names where it came from.
    """
    env = os.environ if env is None else env
    role_models = role_models or {}
    file_models = file_config.models if file_config else {}
    file_name = str(file_config.path) if file_config and file_config.path else "config file"
    resolved: dict[Role, ResolvedModel] = {}
    for role in ROLES:
        candidates = [
            (role_models.get(role), f"argument ({role})"),
            (model, "argument (--model)"),
            (file_models.get(role), f"{file_name} [models] {role}"),
            (file_models.get("default"), f"{file_name} [models] default"),
            (env.get(f"BENCHSMITH_MODEL_{role.upper()}"), f"BENCHSMITH_MODEL_{role.upper()}"),
            (env.get("BENCHSMITH_MODEL"), "BENCHSMITH_MODEL"),
            (ROLE_DEFAULTS.get(role, "local"), "default"),
        ]
        text, source = next((t, s) for t, s in candidates if t)
        try:
            spec = parse_model_spec(text, env)
        except ModelSpecError as exc:
            raise ModelSpecError(f"{exc} (from {source})") from exc
        resolved[role] = ResolvedModel(role=role, spec=spec, source=source)
    return resolved
