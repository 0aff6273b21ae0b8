"""Bruno's rules: cards, rule sets, the game object, rulings and scoring. Standard library only.

    from referee.eventlog import read_event_log
    from referee.session import replay

    log = read_event_log("examples/bruno_every_penalty.jsonl")
    for ruling in replay(log.setup.new_game(), log.events):
        print(ruling.to_dict())
"""
