"""When a generated persona's proactive rows fall, as the authors place them.

The five proactive types share one prompt per persona (`proactive_action_prompt`, the
polarity stays with the judge: EVAL.md@8e2a111f "identical prompt phrasing"), so what
tells a row's gold apart is only the history before it. The authors' rules:

- a sensitive-life-event window overrides every trigger: silence (EVAL.md@8e2a111f,
  subtlety constraint 5; the trending builder drops act candidates inside it at gather
  time; the idle moments of `proactive_overactive_check`, "where no other trigger
  fires", are gathered given the sensitive periods, `_gather_idle_moments(...,
  sensitive_periods)` in scripts/append_overactive_check.py@846bb49a: here outside);
- `restraint_sensitive_event_silence` restrains inside the window and adds an act
  companion a day after it closes, `t_test = active_window_end + 86400`
  (proactive_actions.py@8e2a111f `build_restraint_sensitive_event_silence`,
  `build_sensitive_event_act_companion`; real rows 105 seq 166, 115 seq 156, 229 seq
  176 each sit exactly 86,400 s after their window's end).

So here every act row, and every restrain row of another type, falls outside the
persona's window (`outside`), the restraint rows inside it (`inside`) and the companion
a day after it (`companion`). Two rows whose gold differs are never within `GAP` of each
other, and each row's trigger event lies within `GAP` before it (`trigger`): an event a
model sees always lies between them. (The authors' release does not hold this: 115's
close-friend rows seq 35 and 36, act and restrain, share their second; 105's restraint
rows (04-12, 04-15) and its companion (04-19) all fall after its events as
PERSONAMEM_V3.md section 2 dates them, 04-02 to 04-11.)"""

from __future__ import annotations

from typing import Final

from inspect_personamem.datasets.v3.synthetic.world import (
    DAY,
    FIRST_QUERY,
    HOUR,
    LAST_QUERY,
    World,
)

GAP: Final = 2 * HOUR
"""How near two proactive rows of opposite gold never fall, and how far before its row
a row's trigger may lie."""
TRIGGER_AFTER: Final = 10 * 60
"""How soon before its row a row's trigger lies at the latest."""
TRIES: Final = 10_000


def _free(world: World, t: int, act: bool) -> bool:
    """Whether no proactive row of the other gold is within `GAP` of `t`."""
    return all(abs(t - other) > GAP for other, acts in world.moments if acts != act)


def _place(world: World, t: int, act: bool) -> int:
    """`t`, recorded as a proactive row's; an error where a row of the other gold is
    within `GAP` of it."""
    if not _free(world, t, act):
        raise ValueError(
            f"persona {world.uid}: a proactive row at {t} falls within {GAP} s of one "
            "whose gold differs"
        )
    world.moments.append((t, act))
    return t


def _draw(world: World, spans: list[tuple[int, int]], act: bool) -> int:
    """A second of `spans` (half-open) no row of the other gold is within `GAP` of."""
    total = sum(hi - lo for lo, hi in spans)
    for _ in range(TRIES):
        x = world.rng.randrange(total)
        for lo, hi in spans:
            if x >= hi - lo:
                x -= hi - lo
                continue
            if _free(world, lo + x, act):
                return _place(world, lo + x, act)
            break
    raise ValueError(f"persona {world.uid}: no room for another proactive row")


def outside(world: World, act: bool) -> int:
    """A proactive row's time outside the sensitive window: before it, or after it by
    more than `GAP` (so its trigger is after it too)."""
    start, end = world.sensitive_window
    return _draw(world, [(FIRST_QUERY, start), (end + GAP + 1, LAST_QUERY)], act)


def inside(world: World) -> int:
    """A restraint row's time inside the sensitive window (`World.sensitive_span`)."""
    return _draw(world, [world.sensitive_span()], False)


def companion(world: World) -> int:
    """The restraint type's act companion: a day after the window closes."""
    return _place(world, world.sensitive_window[1] + DAY, True)


def trigger(world: World, t: int) -> int:
    """The time of the trigger event of the proactive row at `t`: within `GAP` before it,
    so after any row of the other gold before it."""
    return t - world.rng.randint(TRIGGER_AFTER, GAP - 1)
