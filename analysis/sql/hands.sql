-- Hands of a dataset, to find one to replay: `paipu hands DS [--game] [--variant]
-- [--player] [--code] [--since] [--limit]` (null: any). `verdict` is `ok`, the first
-- violation's code, or null when the hand is not audited yet. `--since` compares the
-- recorded local time (its UTC offset is ignored); hands without a time are left out then.
select h.id, h.game, h.variant, array_to_string(h.players, ', ') as players, h.time,
       case when v.hand_id is null then null when v.ok then 'ok' else v.code end as verdict,
       h.source || ':' || h.line as source,
       count(*) over () as matching
from hands h
left join verdicts v on v.hand_id = h.id and v.game = h.game
where ($game is null or h.game = $game)
  and ($variant is null or h.variant = $variant)
  and ($player is null or list_contains(h.players, $player))
  and ($code is null or v.code = $code or ($code = 'ok' and v.ok))
  and ($since is null or try_cast(h.time as timestamp) >= cast($since as timestamp))
order by try_cast(h.time as timestamp) nulls last, h.source, h.line, h.id
limit $limit
