-- The most active players per game and variant: hands, wins (first out), points and coins.
select s.game, s.variant, s.player,
       count(*) as hands,
       count(*) filter (where s.place = 1) as wins,
       wins / hands as rate,
       sum(s.score) as points,
       sum(s.coin) as coins
from seats s
join legal($game, $variant) l on l.hand_id = s.hand_id and l.game = s.game
where l.winner is not null
group by s.game, s.variant, s.player
qualify row_number() over (partition by s.game, s.variant order by count(*) desc, s.player) <= 10
order by s.game, s.variant, hands desc, s.player
