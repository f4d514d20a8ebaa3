"""Programs a capable model proposes, and the code's check of them.

The model reads the intent; the code checks every field, value and join against the data
and runs the program once. A proposal that does not fit is set aside (the rules' reading
stands); a model that finds no field for what is asked refuses the plan with what it lacks.
"""

from __future__ import annotations

import csv
import json

import pytest
from pydantic import ValidationError
from test_programs_phrasings import finals_table, table_of

from benchsmith.cli import main
from benchsmith.programs import generate
from benchsmith.programs.propose import (
    NotServable,
    ProposalError,
    describe,
    proposal_schema,
    to_spec,
)
from benchsmith.testing.fake_openai import FakeOpenAIServer, Reply

TEAMS = [
    ("Brazil", "CONMEBOL"),
    ("Italy", "UEFA"),
    ("France", "UEFA"),
    ("Germany", "UEFA"),
    ("Spain", "UEFA"),
    ("Netherlands", "UEFA"),
    ("Argentina", "CONMEBOL"),
    ("Croatia", "UEFA"),
]


def tables() -> dict:
    teams = table_of("teams", {"team": "text", "confederation": "category"}, TEAMS)
    return {"finals": finals_table(), "teams": teams}


def proposal(**fields):
    """A proposal as the schema validates it (what a model's reply becomes)."""
    return proposal_schema(tables()).model_validate({"book": "closed", "table": "finals", **fields})


def test_a_checked_proposal_becomes_the_program_it_describes():
    spec = to_spec(proposal(kind="lookup", key_field="year", answer_field="winner"), tables())
    assert (spec.kind, spec.key_field, spec.answer_field) == ("lookup", "year", "winner")
    # A lookup with conditions is a filtered lookup; a value is read as the data writes it.
    found = proposal(
        kind="lookup",
        answer_field="runner_up",
        conditions=[{"field": "decided_in", "op": "!=", "value": "Normal Time"}],
    )
    spec = to_spec(found, tables())
    assert spec.kind == "filtered_lookup" and spec.key_field == "year"
    assert [(c.field, c.op, c.value) for c in spec.conditions] == [
        ("decided_in", "!=", "normal time")
    ]
    spec = to_spec(proposal(kind="superlative", field="runner_up_goals", direction="max",
                            book="open", k=3), tables())  # fmt: skip
    assert (spec.k, spec.rows_shown, spec.book) == (3, 3, "open")
    count = proposal(kind="count", conditions=[{"field": "winner_goals", "op": ">", "value": "1"}])
    spec = to_spec(count, tables())
    assert spec.book == "open" and spec.conditions[0].value == 1.0 and spec.rows_shown >= 2
    inst = generate(spec, tables(), n=1, seed=0)[0]
    shown = [r for r in inst.rows]
    expected = sum(finals_table().value(r, "winner_goals") > 1 for r in shown)
    assert inst.answer == str(expected)  # recomputed here from the rows shown


def test_a_multihop_proposal_follows_a_real_join():
    found = proposal(kind="multihop", via="winner", answer_field="confederation")
    spec = to_spec(found, tables())
    assert [(h.via, h.table, h.key_field) for h in spec.hops] == [("winner", "teams", "team")]
    inst = generate(spec, tables(), n=3, seed=1)
    confederation = dict(TEAMS)
    winner = {r[0]: r[2] for r in [(1994, 0, "Brazil"), (1998, 0, "France"), (2002, 0, "Brazil"),
              (2006, 0, "Italy"), (2010, 0, "Spain"), (2014, 0, "Germany"),
              (2018, 0, "France"), (2022, 0, "Argentina")]}  # fmt: skip
    for one in inst:
        (year,) = one.named
        assert one.answer == confederation[winner[int(year)]]
    with pytest.raises(ProposalError, match="'decided_in' are not the keys of another table"):
        to_spec(proposal(kind="multihop", via="decided_in", answer_field="team"), tables())


def test_a_multihop_proposal_without_a_join_ranks_then_reports():
    found = proposal(kind="multihop", field="winner_goals", direction="max", answer_field="winner")
    spec = to_spec(found, tables())
    assert (spec.kind, spec.field, spec.answer_field, spec.hops) == (
        "multihop", "winner_goals", "winner", []
    )  # fmt: skip
    table = finals_table()
    for one in generate(spec, tables(), n=3, seed=2):
        goals = [table.value(r, "winner_goals") for r in one.rows]
        assert one.answer == table.text(one.rows[goals.index(max(goals))], "winner")
    with pytest.raises(ProposalError, match="that is a superlative"):
        to_spec(proposal(kind="multihop", field="winner_goals", answer_field="year"), tables())


@pytest.mark.parametrize(
    ("fields", "why"),
    [
        ({"kind": "compare", "field": "winner", "direction": "max"}, "cannot be ranked"),
        ({"kind": "compare", "field": "winner_goals"}, "needs a direction"),
        ({"kind": "lookup", "key_field": "decided_in", "answer_field": "winner"}, "values repeat"),
        ({"kind": "lookup", "key_field": "year", "answer_field": "year"}, "names the record"),
        ({"kind": "count"}, "needs a condition"),
        (
            {"kind": "count", "conditions": [{"field": "winner", "op": "==", "value": "Peru"}]},
            "no record of finals has winner = 'Peru'",
        ),
        (
            {"kind": "count", "conditions": [{"field": "winner", "op": ">", "value": "B"}]},
            "only == and != apply",
        ),
        ({"kind": "classify", "answer_field": "winner_goals"}, "not a class label"),
    ],
)
def test_a_proposal_that_does_not_fit_the_data_says_why(fields, why):
    with pytest.raises(ProposalError, match=why):
        to_spec(proposal(**fields), tables())


def test_the_schema_offers_only_what_the_data_has_and_a_refusal_names_what_is_missing():
    with pytest.raises(ValidationError):
        proposal(kind="lookup", key_field="year", answer_field="referee")
    with pytest.raises(ValidationError):
        proposal(kind="lookup", table="stadiums")
    with pytest.raises(NotServable, match="referee"):
        to_spec(proposal(kind="lookup", servable=False, missing="no referee field"), tables())
    text = describe(tables())
    assert "- winner (category): Brazil, France, Italy" in text
    assert "join: finals.winner is a teams.team" in text


FINALS = [
    (1998, "France", "Brazil", 3, 0),
    (2002, "Brazil", "Germany", 2, 0),
    (2006, "Italy", "France", 1, 1),
    (2010, "Spain", "Netherlands", 1, 0),
    (2014, "Germany", "Argentina", 1, 0),
    (2018, "France", "Croatia", 4, 2),
    (2022, "Argentina", "France", 3, 3),
]


def proposing(arguments: dict):
    """A fake endpoint's replies: ``arguments`` for the program proposal, else minimal ones."""

    def reply(body: dict) -> Reply:
        asked = json.dumps(body.get("tools") or body.get("response_format") or {})
        if "ProgramProposal" not in asked:
            return Reply.auto()
        if body.get("tools"):
            return Reply.tool_call(arguments)
        return Reply.text(json.dumps(arguments))

    return reply


@pytest.fixture
def finals_csv(tmp_path, monkeypatch):
    monkeypatch.setenv("BENCHSMITH_HOME", str(tmp_path / "home"))
    path = tmp_path / "finals.csv"
    with path.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["year", "winner", "runner_up", "winner_goals", "runner_up_goals"])
        writer.writerows(FINALS)
    return path


def build(finals_csv, tmp_path, server, intent: str, *extra: str) -> tuple[int, object]:
    out = tmp_path / f"out{len(list(tmp_path.glob('out*')))}"  # a new folder per build
    code = main(["build", intent, "--size", "3", "--dataset", str(finals_csv), "--out", str(out),
                 "--model", f"fake-model@{server.base_url}", *extra])  # fmt: skip
    return code, out


def test_a_build_takes_the_models_checked_program(finals_csv, tmp_path):
    wanted = {"kind": "compare", "book": "closed", "table": "finals", "field": "runner_up_goals",
              "direction": "max", "key_field": "year"}  # fmt: skip
    # Worded so that the rules alone read no goals field: "the beaten finalist netted more".
    intent = "Two finals: in which one did the beaten finalist net more often?"
    with FakeOpenAIServer(default=proposing(wanted)) as server:
        code, out = build(finals_csv, tmp_path, server, intent)
        asked = [r for r in server.requests if "ProgramProposal" in json.dumps(r.body)]
    assert code == 0 and len(asked) == 1  # asked once: design and grounding share it
    assert "<<<UNTRUSTED tables>>>" in json.dumps(asked[0].body)
    program = json.loads((out / "spec.json").read_text())["groundings"][0]["program"]
    assert (program["kind"], program["field"], program["direction"]) == (
        "compare", "runner_up_goals", "max"
    )  # fmt: skip
    goals = {str(r[0]): r[4] for r in FINALS}
    for line in (out / "data" / "test.jsonl").read_text().splitlines():
        item = json.loads(line)
        a, b = item["metadata"]["program"]["records"]
        picked = item["choices"]["ABCD".index(item["target"])]
        assert goals[picked] == max(goals[a], goals[b]) and goals[a] != goals[b]


def test_the_models_refusal_stops_the_plan_and_rules_mode_does_not_ask(
    finals_csv, tmp_path, capsys
):
    refusal = {"servable": False, "missing": "no field holds the referee of a final",
               "kind": "lookup", "book": "closed", "table": "finals"}  # fmt: skip
    with FakeOpenAIServer(default=proposing(refusal)) as server:
        code, _ = build(finals_csv, tmp_path, server, "Who refereed each final?")
    assert (
        code != 0 and "the grounding model: no field holds the referee" in capsys.readouterr().err
    )
    with FakeOpenAIServer(default=proposing(refusal)) as server:
        intent = "Which nation won the final of a given year?"
        code, out = build(finals_csv, tmp_path, server, intent, "--programs", "rules")
        asked = [r for r in server.requests if "ProgramProposal" in json.dumps(r.body)]
    assert code == 0 and asked == []
    program = json.loads((out / "spec.json").read_text())["groundings"][0]["program"]
    assert program["answer_field"] == "winner"


def test_a_proposal_that_fails_its_check_leaves_the_rules_reading(finals_csv, tmp_path, capsys):
    wrong = {"kind": "compare", "book": "closed", "table": "finals", "field": "winner",
             "direction": "max"}  # fmt: skip
    with FakeOpenAIServer(default=proposing(wrong)) as server:
        code, out = build(
            finals_csv, tmp_path, server, "Which of two finals had more goals by the winner?"
        )
    assert code == 0
    spec = json.loads((out / "spec.json").read_text())
    assert spec["groundings"][0]["program"]["field"] == "winner_goals"
    err = capsys.readouterr().err
    assert "program set aside: 'winner' is not a number or a date: it cannot be ranked" in err
