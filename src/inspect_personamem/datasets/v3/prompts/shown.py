"""How a PersonaMem-v3 prompt reads a query row's instance (`Shown`), what a prompt is
(`Prompt`, `TaskPrompt`: its builder, source and provenance), and which instance keys
only the scorers read (`SCORER_ONLY`). The templates are `chatbot`, `slate` and
`agentic`; a task type holds its `TaskPrompt` (`task_types`), and
`task_types.samples` makes a query row a sample.

The hard rule: a prompt reads the instance only through `Shown`, which refuses every
scorer-only key (`SCORER_ONLY`, and every key with a leading underscore, the builders'
private notes); the row's `display_rubric` and `rubric_tags` never reach a builder. What
the scorers read goes to the metadata under `SCORER_KEY`, apart from what the model sees
(`SHOWN_KEY`: the instance fields the prompt read). A field a prompt needs and the
instance lacks is a one-line PersonaMemDataError naming the file, the query and the field.

`TaskPrompt.provenance` says whether the runner that calls a template was read
(`READ`) or its call is inferred (`INFERRED`, to be checked by a later session).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

from inspect_personamem.datasets.v3.persona.streams import Persona
from inspect_personamem.datasets.v3.release.records import V3Query
from inspect_personamem.errors import PersonaMemDataError

SCORER_KEY: Final = "v3_scorer"
"""Metadata key of what only the scorers read (never shown to the model)."""
SHOWN_KEY: Final = "v3_shown"
"""Metadata key of the instance fields the prompt read (what the model saw)."""

SCORER_ONLY: Final = frozenset(
    {
        "groundtruth_preference",
        "example_response",
        "example_response_self_check",
        "inferior_response",
        "inferior_failure_mode",
        "gt_slice",
        "held_out_idx",
        "hard_negative_idxs",
        "positive_indices",
        "carveout_indices",
        "positive_directive_hashtags",
        "negative_directive_hashtags",
        "expected_behavior",
        "jitai_card",
        "trigger_evidence",
        "held_out_preference",
        "top_k_relevant_prefs",
        "privacy_flagged_prefs",
        "post_test_window",
        "blind_check_score",
        "blind_check_generic_answer",
        "tool_call_rules",
        # what an agent run's checks read (verifiers.py: the final state, and the
        # verifiers' hints of agentic_verifiers.py@25a27933)
        "final_state_expected",
        "dm_correspondents",
        "participants",
        "topic_hints",
        "target_pref",
        "primary_category",
        "persona_hint",
        "off_persona_distractor_hashtags",
        "cluster_hashtags",
        "n_allowed_repetitions",
        "forbidden_items",
        "carve_out",
        "notes",
        "name",
        "hidden_persona",
        "hidden_profile",
        "profile",
        # the geo-shift answer (local_recommendation_geo_shift.py@03f5e860 `_emit_leg`)
        "current_city",
        "current_region",
        "current_country",
        "prior_city",
        "prior_region",
        "prior_country",
        "groundtruth",
        # the warn/foil pair and its frame (e6_active_mistake_prevention.py@11d3bf48)
        "polarity",
        "pair_id",
        "expected_warning_frame",
        "mistake_summary",
        "is_persona_safety",
        "cross_signal_signals",
        # the lifecycle probe's phase and answer (e5_horizon_lifecycle.py@b8d90778)
        "phase",
        "canonical_id",
        "persona_item",
        "matching_indices",
        "expected_stop_ts",
        "stop_condition_type",
        "stop_condition_description",
        # the judged types' answers, which the generator writes (names ours where the
        # authors' builders were not read: generator.FIELDS_OURS)
        "gold_topic",
        "gold_hashtags",
        "fatigued_hashtags",
        "fatigue_hashtags",
        "leak_set_hashtags",
        "cluster_id",
    }
)
"""Instance keys no prompt may read: the gold and foil replies, the ground truth and its
slices, the slate's answer indices, the judge's cards and polarity, the repetition
cluster's rule inputs (`prompts.py`@dc56d425 says they "would leak the test's judgment
criteria"), the scenario's notes (`scenario_prompt` keeps them out), any profile, and
what the rule scorers read (`rules`): the geo-shift cities, the warn/foil polarity
and frame, the lifecycle probe's phase, canonical and on-topic indices (E5's own prompt
names none of them: "leaking any of those collapsed this into instruction-following").
Keys with a leading underscore (`_sensitive_event_topic`, ...) are refused as well."""
SCORER_COLUMNS: Final = ("display_rubric", "rubric_tags", "expected_response_kind")
"""Row columns kept for the scorers only."""

Provenance = Literal["READ", "INFERRED"]


class Shown:
    """The model-visible view of a row's instance: a prompt builder's only access to it.

    `text`, `items`, `records` and `optional` return a field's value, checked for its
    kind; a missing or empty required field is a one-line PersonaMemDataError; asking
    for a scorer-only key is a programming error (ValueError), whatever the data.
    `persona` is the row's persona as read (`streams.Persona`), for the prompts the
    authors build from it as well as from the instance (the proactive types' user-state
    summary); None where the caller has none, which such a prompt refuses."""

    def __init__(self, query: V3Query, path: Path | str, persona: Persona | None = None) -> None:
        self._query = query
        self._path = path
        self._persona = persona
        self.read: dict[str, Any] = {}
        """The fields read, with their values (the sample's `SHOWN_KEY`)."""
        self.ground_truth = ""
        """The query's agentic ground-truth block (`prompts.ground_truth`, "" where its
        type has none), set before the template is built."""

    def persona(self) -> Persona:
        """The row's persona; a one-line PersonaMemDataError where none was given."""
        if self._persona is None or self._persona.user_id != self._query.user_id:
            raise self.persona_error("its files were not read")
        return self._persona

    def persona_error(self, message: str) -> PersonaMemDataError:
        """A one-line error naming the file, the query and the persona's profile."""
        uid = self._query.user_id
        return PersonaMemDataError.at(
            self._path,
            f"backend/{uid}/profile.json: {message} (the {self._query.task_type} prompt needs it)",
            line=self._query.line,
            question_id=self._query.query_id,
            field="user_id",
        )

    def _get(self, key: str) -> Any:
        if key in SCORER_ONLY or key.startswith("_"):
            raise ValueError(f"a prompt may not read the scorer-only field {key!r}")
        value = self._query.instance.get(key)
        if value is not None:
            self.read[key] = value
        return value

    def has(self, key: str) -> bool:
        """Whether the instance holds a model-visible `key` (a scorer-only key is refused)."""
        if key in SCORER_ONLY or key.startswith("_"):
            raise ValueError(f"a prompt may not read the scorer-only field {key!r}")
        return key in self._query.instance

    def error(self, key: str, message: str) -> PersonaMemDataError:
        """A one-line error naming the file, the query and the instance field."""
        return PersonaMemDataError.at(
            self._path,
            f"{message} (the {self._query.task_type} prompt needs it)",
            line=self._query.line,
            question_id=self._query.query_id,
            field=f"instance_json.{key}",
        )

    def text(self, key: str, *, empty: bool = False) -> str:
        value = self._get(key)
        if value is None or (value == "" and not empty):
            raise self.error(key, "missing" if value is None else "empty")
        if not isinstance(value, str):
            raise self.error(key, f"expected text, found {type(value).__name__}")
        return value

    def optional(self, key: str, default: str = "") -> str:
        value = self._get(key)
        if value is None:
            return default
        if not isinstance(value, str):
            raise self.error(key, f"expected text, found {type(value).__name__}")
        return value

    def number(self, key: str) -> int:
        value = self._get(key)
        if isinstance(value, bool) or not isinstance(value, int):
            found = "nothing" if value is None else type(value).__name__
            raise self.error(key, f"expected an integer, found {found}")
        return value

    def items(self, key: str, *, required: bool = True) -> list[str]:
        value = self._get(key)
        if value is None and not required:
            return []
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.error(key, "missing" if value is None else "expected a list of text")
        return value

    def records(self, key: str, *, required: bool = True) -> list[dict[str, Any]]:
        value = self._get(key)
        if value is None and not required:
            return []
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise self.error(key, "missing" if value is None else "expected a list of objects")
        if required and not value:
            raise self.error(key, "empty")
        return value

    def record(self, key: str, *, required: bool = True) -> dict[str, Any]:
        value = self._get(key)
        if value is None and not required:
            return {}
        if not isinstance(value, dict):
            raise self.error(key, "missing" if value is None else "expected an object")
        return value


@dataclass(frozen=True)
class Prompt:
    """A task's prompt without the history, and the slate it shows (one line each)."""

    text: str
    slate: tuple[str, ...] = ()


Builder = Callable[[Shown], Prompt]


@dataclass(frozen=True)
class TaskPrompt:
    """A task type's prompt: its builder, its source, and whether the runner's call of
    it was read or is inferred."""

    build: Builder
    source: str
    provenance: Provenance
    target: Literal["gold", "slate"] = "gold"
    """What `Sample.target` holds: the gold reply, or the slate's positive indices."""
