"""The generator's word lists: the interests a persona may like or dislike, the cities it
travels between, names, sensitive life events, and how many events a day each app gets
(`world.World` draws from them). Made up: scores on text built from them mean nothing."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from inspect_personamem.datasets.v3.release.spec import App

APP_NAME: Final[Mapping[str, str]] = {
    "instagram": "Instagram",
    "facebook": "Facebook",
    "threads": "Threads",
    "chatbot": "Chatbot",
    "ai_studio": "AI_Studio",
}
"""An app's name as an event's `interaction_format.app` gives it."""
SOCIAL: Final[tuple[App, ...]] = ("instagram", "facebook", "threads")
"""The feed apps: their events have content; the others, a conversation."""
PER_DAY: Final[Mapping[str, int]] = {
    "instagram": 4,
    "facebook": 3,
    "threads": 3,
    "chatbot": 2,
    "ai_studio": 1,
}
"""Background events a day, per app."""
CITIES: Final = (
    ("Chicago", "IL", "USA", 41.8781, -87.6298),
    ("Denver", "CO", "USA", 39.7392, -104.9903),
    ("Seattle", "WA", "USA", 47.6062, -122.3321),
    ("Austin", "TX", "USA", 30.2672, -97.7431),
    ("Boston", "MA", "USA", 42.3601, -71.0589),
    ("Portland", "OR", "USA", 45.5152, -122.6784),
)
"""Cities: (name, region, country, latitude, longitude)."""
Topic = tuple[str, str, tuple[str, ...]]
"""An interest: name, category, hashtags."""
TOPICS: Final[tuple[Topic, ...]] = (
    ("sourdough baking", "food", ("#sourdough", "#breadmaking", "#homebaker")),
    ("trail running", "fitness", ("#trailrunning", "#ultrarunner", "#mountainmiles")),
    ("jazz vinyl", "music", ("#jazzvinyl", "#bluenote", "#recordcollector")),
    ("houseplants", "home", ("#plantparent", "#monstera", "#urbanjungle")),
    ("film photography", "art", ("#filmphotography", "#35mm", "#analogvibes")),
    ("board games", "hobbies", ("#boardgames", "#tabletop", "#gamenight")),
    ("budget travel", "travel", ("#budgettravel", "#backpacking", "#hostellife")),
    ("woodworking", "crafts", ("#woodworking", "#handtools", "#shopmade")),
    ("birdwatching", "nature", ("#birding", "#birdwatching", "#fieldguide")),
    ("indie comics", "books", ("#indiecomics", "#graphicnovel", "#zines")),
    ("espresso", "food", ("#espresso", "#latteart", "#homebarista")),
    ("climbing", "fitness", ("#bouldering", "#climbinggym", "#sendit")),
    ("true crime", "media", ("#truecrime", "#coldcase", "#podcastlife")),
    ("celebrity gossip", "media", ("#celebnews", "#redcarpet", "#tabloid")),
    ("crypto trading", "finance", ("#crypto", "#altcoins", "#hodl")),
    ("reality tv", "media", ("#realitytv", "#dramabox", "#reunionshow")),
    ("pranks", "humor", ("#prankwar", "#gotcha", "#pranked")),
    ("fast fashion hauls", "fashion", ("#haul", "#ootd", "#fastfashion")),
    ("chess", "hobbies", ("#chess", "#blitz", "#endgame")),
    ("gardening", "home", ("#vegetablegarden", "#compost", "#growyourown")),
    ("astronomy", "science", ("#astrophotography", "#nightsky", "#telescope")),
    ("cycling", "fitness", ("#cycling", "#gravelbike", "#bikecommute")),
    ("ramen", "food", ("#ramen", "#noodlelove", "#tonkotsu")),
    ("watch collecting", "fashion", ("#watchcollector", "#horology", "#wristcheck")),
)
"""Interests: (name, category, hashtags). A persona likes some, dislikes some others."""
FIRST_NAMES: Final = ("Ada", "Ben", "Chloe", "Dev", "Elif", "Farid", "Gina", "Hiro", "Ines")
LAST_NAMES: Final = ("Park", "Okafor", "Lindqvist", "Moreau", "Tanaka", "Reyes", "Novak")
"""The persona's and its friends' names are drawn from these."""
SENSITIVE: Final = (
    ("job_loss", "quietly bracing after a budget cut", ("#worklife", "#budgeting", "#jobsearch")),
    ("breakup", "getting through a recent breakup", ("#selfcare", "#movingon", "#healing")),
    ("grief", "missing a grandparent who passed", ("#grief", "#memories", "#family")),
)
"""Sensitive life events: (topic, label, hashtags); a persona goes through one."""
