"""The OpenAPI 3.1 description of the JSON API, served at /api/openapi.json (the tests validate every response)."""

from __future__ import annotations

from typing import Any

from pbem.store.vocabulary import GameStatus

__all__ = ["openapi_document"]

_STRING = {"type": "string"}
_INT = {"type": "integer"}
_TIME = {"type": ["string", "null"], "format": "date-time"}
_NULLABLE_STRING = {"type": ["string", "null"]}
_SEAT = {"type": "string", "enum": ["white", "black"]}


def _object(properties: dict[str, Any], closed: bool = True) -> dict[str, Any]:
    """An object with every property required; ``closed``: no others (a schema others extend stays open)."""
    found = {"type": "object", "properties": properties, "required": list(properties)}
    return {**found, "additionalProperties": False} if closed else found


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


_SCHEMAS: dict[str, Any] = {
    "GameSummary": _object({
        "id": _INT, "url": _STRING, "variant": _STRING, "title": _STRING, "white": _STRING, "black": _STRING,
        "status": {"type": "string", "enum": [status.value for status in GameStatus]}, "result": _STRING,
        "reason": _STRING, "visible_ply": _INT, "updated_at": _TIME,
    }, closed=False),
    "Square": _object({"file": _STRING, "rank": _STRING, "kind": _STRING, "colour": _SEAT}),
    "Mark": _object({"file": _STRING, "rank": _STRING, "mark": _STRING}),
    "Panel": _object({
        "title": _STRING, "files": {"type": "array", "items": _STRING}, "ranks": {"type": "array", "items": _STRING},
        "pieces": {"type": "array", "items": _ref("Square")}, "marks": {"type": "array", "items": _ref("Mark")},
    }),
    "Board": _object({"panels": {"type": "array", "items": _ref("Panel")},
                      "notes": {"type": "array", "items": _STRING}}),
    "Position": _object({
        "ply": _INT,
        "diagram": {"type": "string", "description": "the variant's canonical diagram, as mails and `pbem show` "
                                                     "print it, as the public may see it"},
        "to_move": {"type": ["string", "null"], "enum": ["white", "black", None]},
        "move_number": _INT, "status": {"type": "array", "items": _STRING},
        "board": {"oneOf": [_ref("Board"), {"type": "null"}]},
    }, closed=False),
    "Move": _object({"ply": _INT, "move_number": _INT, "seat": _SEAT, "record": _STRING, "played_at": _TIME}),
    "Note": _object({"ply": _INT, "handle": _STRING, "text": _STRING}),
    "Game": {"allOf": [_ref("GameSummary")], "type": "object", "properties": {
        "rated": {"type": "boolean"}, "time_control": _STRING, "started_at": _TIME,
        "delay": {"type": "integer", "description": "plies the public is kept behind while the game runs"},
        "deadline": _TIME, "event_id": {"type": ["integer", "null"]}, "position": _ref("Position"),
        "moves": {"type": "array", "items": _ref("Move")}, "clock": {"type": "array", "items": _STRING},
        "notes": {"type": "array", "items": _ref("Note")},
    }, "required": ["rated", "time_control", "started_at", "delay", "deadline", "event_id", "position", "moves",
                    "clock", "notes"], "unevaluatedProperties": False},
    "PositionAt": {"allOf": [_ref("Position")], "type": "object", "properties": {"game": _INT},
                   "required": ["game"], "unevaluatedProperties": False},
    "Seek": _object({"id": _INT, "handle": _STRING, "variant": _STRING, "colour": _STRING, "time_control": _STRING,
                     "expires_at": _TIME}),
    "Games": _object({"active": {"type": "array", "items": _ref("GameSummary")},
                      "finished": {"type": "array", "items": _ref("GameSummary")},
                      "seeks": {"type": "array", "items": _ref("Seek")}}),
    "Elo": _object({"rating": _INT, "games": _INT, "provisional": {"type": "boolean"}}),
    "PlayerGame": {"allOf": [_ref("GameSummary")], "type": "object",
                   "properties": {"outcome": {"type": ["string", "null"]}}, "required": ["outcome"],
                   "unevaluatedProperties": False},
    "Player": _object({"handle": _STRING, "since": _TIME,
                       "ratings": {"type": "object", "additionalProperties": _ref("Elo")},
                       "games": {"type": "array", "items": _ref("PlayerGame")}}),
    "EventGame": {"allOf": [_ref("GameSummary")], "type": "object", "properties": {"round": _INT},
                  "required": ["round"], "unevaluatedProperties": False},
    "Event": _object({
        "name": _STRING, "variant": _STRING, "format": _STRING, "status": _STRING, "summary": _STRING,
        "tiebreaks": {"type": "array", "items": _STRING}, "current_round": _INT, "round_deadline": _TIME,
        "standings": {"type": "string", "description": "the standings table as text, as mails show it"},
        "crosstable": {"type": "string", "description": "the crosstable (or bracket) as text"},
        "players": {"type": "array", "items": _STRING}, "games": {"type": "array", "items": _ref("EventGame")},
    }),
    "RatingRow": _object({"rank": _INT, "handle": _STRING, "rating": _INT, "games": _INT,
                          "provisional": {"type": "boolean"}}),
    "Ratings": _object({"variant": _STRING, "title": _STRING,
                        "ratings": {"type": "array", "items": _ref("RatingRow")},
                        "computer": {"type": "array", "items": _ref("RatingRow"),
                                     "description": "the list of games against the computer, kept apart"}}),
    "Error": _object({"error": _STRING}),
}


def _get(summary: str, schema: str, parameters: list[dict[str, Any]] | None = None,
         missing: str | None = None) -> dict[str, Any]:
    responses: dict[str, Any] = {
        "200": {"description": summary, "headers": {"ETag": {"schema": _STRING}},
                "content": {"application/json": {"schema": _ref(schema)}}},
        "304": {"description": "not modified since the ETag sent in If-None-Match"},
    }
    if missing:
        responses["404"] = {"description": missing, "content": {"application/json": {"schema": _ref("Error")}}}
    return {"get": {"summary": summary, "parameters": parameters or [], "responses": responses}}


def _path_parameter(name: str, schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True, "schema": schema, "description": description}


_GAME_ID = _path_parameter("game_id", {"type": "integer", "minimum": 1}, "the game's number")


def openapi_document() -> dict[str, Any]:
    """The description of every /api/ path, with its response schemas."""
    return {
        "openapi": "3.1.0",
        "info": {"title": "pbem public API", "version": "1",
                 "description": "Read-only: what any observer of pbem's games may know, and nothing more. Every "
                                "response carries an ETag; send it back in If-None-Match for a 304."},
        "paths": {
            "/api/games": _get("active games, recent results and open seeks", "Games"),
            "/api/games/{game_id}": _get("one game: players, result, clock, public position and moves", "Game",
                                         [_GAME_ID], "no such game"),
            "/api/games/{game_id}/{ply}": _get(
                "the public position after ply plies", "PositionAt",
                [_GAME_ID, _path_parameter("ply", {"type": "integer", "minimum": 0}, "plies from the start")],
                "no such game, or a ply the public may not see yet"),
            "/api/players/{handle}": _get("a player's games and ratings (never an address)", "Player",
                                          [_path_parameter("handle", _STRING, "the player's handle")],
                                          "no such player"),
            "/api/events/{name}": _get("an event: standings, crosstable, games", "Event",
                                       [_path_parameter("name", _STRING, "the event's name")], "no such event"),
            "/api/ratings/{variant}": _get("a variant's rating list", "Ratings",
                                           [_path_parameter("variant", _STRING, "a variant key or alias")],
                                           "no such variant"),
        },
        "components": {"schemas": _SCHEMAS},
    }
