-- Hands where d lost the most to opponent r (by coins, points when no coins).
select d.hand_id, d.result as d_result, r.result as r_result
from fraud_seats d
join fraud_seats r on r.game = d.game and r.hand_id = d.hand_id and r.side <> d.side
where d.player = $a and r.player = $b and d.game = $g and d.result < 0 and r.result > 0
order by d.result, d.hand_id limit $limit
