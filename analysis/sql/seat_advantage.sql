-- How often each seat wins (goes out first), decided legal hands only.
select s.game, s.variant, l.setting, s.seat,
       count(*) as hands,
       count(*) filter (where s.place = 1) as wins,
       wins / hands as rate,
       wilson_lo(wins, hands) as lo,
       wilson_hi(wins, hands) as hi
from seats s
join legal($game, $variant) l on l.hand_id = s.hand_id and l.game = s.game
where l.winner is not null
group by all
order by all
