-- Hands where player a spared opponent b's play although it could beat it (most spares first).
select d.game, d.hand_id, count(*) as spares
from decisions d
join (select distinct game, hand_id from fraud_seats) f on f.hand_id = d.hand_id and f.game = d.game
where d.spared and d.relation = 'opponent' and d.player = $a and d.target_player = $b and d.game = $g
group by all order by spares desc, d.hand_id limit $limit
