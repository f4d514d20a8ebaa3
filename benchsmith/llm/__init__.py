"""The model layer: specs, per-role selection, one client path, records, usage and budget.

Modules: ``specs`` (model spec strings), ``roles`` (which model serves which role),
``client`` (``LLMRuntime`` and ``RoleModel``: the one call path), ``structured`` (validated
pydantic replies), ``retry`` (the one retry layer), ``usage`` (tokens, prices, budget),
``records`` (run records and the cache), ``local`` (the embedded model's server) and
``registry`` (``get_model``, the helper agents use).
"""
