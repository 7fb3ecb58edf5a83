-- The rating's raw counts (analysis/rating.py): per game, variant, player and hand
-- reviewed without a violation, the player's decisions with a choice (two options or
-- more), those that matched the best option (chose it: `best` is the option chosen when
-- it ties the best, replay/review.py), those
-- flagged a mistake, a blunder, and the sum of their losses (points of win probability).
-- A player reviewed in a hand where none of its decisions had a choice has n = 0.
with took as (
    select v.game, v.variant, v.hand_id, p.player
    from reviewed v
    join hands h on h.id = v.hand_id and h.game = v.game
    cross join unnest(h.players) as p(player)
    where v.status = 'ok'
    group by all
), d as (
    select game, variant, player, hand_id,
           count(*) as n,
           count(*) filter (where chosen = best) as matches,
           count(*) filter (where flag = 'mistake') as mistakes,
           count(*) filter (where flag = 'blunder') as blunders,
           sum(loss::double) as loss
    from reviews
    where options > 1 and not isnan(loss)
    group by all
)
select t.game, t.variant, t.player, t.hand_id,
       coalesce(d.n, 0) as n, coalesce(d.matches, 0) as matches, coalesce(d.mistakes, 0) as mistakes,
       coalesce(d.blunders, 0) as blunders, coalesce(d.loss, 0.0) as loss
from took t
left join d on d.game = t.game and d.variant = t.variant and d.player = t.player and d.hand_id = t.hand_id
order by all
