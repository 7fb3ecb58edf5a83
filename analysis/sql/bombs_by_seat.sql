-- Bombs played per hand by seat and role, and how often the seat bombs at all.
select s.game, s.variant, l.setting, s.seat, coalesce(s.role, '') as role,
       count(*) as hands,
       avg(s.bombs_played) as bombs_per_hand,
       count(*) filter (where s.bombs_played > 0) as hands_with_bomb,
       hands_with_bomb / hands as rate,
       wilson_lo(hands_with_bomb, hands) as lo,
       wilson_hi(hands_with_bomb, hands) as hi
from seats s
join played($game, $variant) l on l.hand_id = s.hand_id and l.game = s.game
group by all
order by all
