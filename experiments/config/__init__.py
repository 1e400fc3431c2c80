"""The configuration of a training run: :mod:`experiments.config.schema` (one dataclass per
section of a YAML config, with its defaults and checks) and :mod:`experiments.config.loader`
(YAML files and ``--section.key VALUE`` overrides read into those dataclasses, every error a
:class:`~experiments.config.loader.ConfigError` naming the key; the resolved config written into
a run folder)."""
