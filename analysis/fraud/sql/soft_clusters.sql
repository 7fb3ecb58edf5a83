-- Soft play per ordered pair, hand and place: the pair's chances and spares in each hand
-- (each match, where hands come in matches: a match's levels and seats hold for all of its
-- hands),
-- for the hand-level test (a player's rare passes come in runs within one hand: a hand
-- whose shape makes it keep its cards passes on the same opponent again and again), and,
-- over every pair, the population's over-dispersion (`overdispersion`). `place` as in
-- pair_soft.sql (seats apart x 10 + options).
select d.game, d.variant, d.player as a, d.target_player as b, coalesce(h.match_id, d.hand_id) as c, (d.seat - d.target_seat) * 10 + least(d.options, 5) as place,
       count(*) as n, count(*) filter (where d.spared) as k
from decisions d
join (select distinct game, hand_id from fraud_seats) f on f.hand_id = d.hand_id and f.game = d.game
join hands h on h.id = d.hand_id and h.game = d.game
where d.can_beat and d.relation = 'opponent' and d.target_player is not null
group by all
order by all
