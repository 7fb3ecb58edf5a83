-- Hands where player b took over player a's leads (most take-overs first).
select game, hand_id, count(*) as taken
from feed_chances
where taken and a = $a and b = $b and game = $g
group by all order by taken desc, hand_id limit $limit
