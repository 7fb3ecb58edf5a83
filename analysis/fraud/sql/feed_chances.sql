-- Feeding: every lead of player a, once per opponent b at the table, and whether b was the
-- one who took the trick over (made the first play after the lead). A colluder who knows
-- its friend's cards leads what the friend can beat and the others cannot; under a rule that
-- a seat must play when able, this is how collusion shows, since sparing is not allowed.
-- `place`: seats from a to b in turn order (whether b acts first or after a third seat).
-- `c`: the sitting (a match; a hand outside matches) for the over-dispersion.
create or replace temp table feed_chances as
with p as (
    select game, variant, hand_id, idx, seat, player, lead,
           lead(player) over w as next_player, lead(lead) over w as next_lead
    from decisions
    where act = 'play'
    window w as (partition by game, hand_id order by idx)
), leads as (
    select game, variant, hand_id, seat, player as a, case when next_lead = false then next_player end as taker
    from p
    where lead and player is not null
), s as (
    select game, hand_id, seat, player, side, count(*) over (partition by game, hand_id) as seats from fraud_seats
)
select l.game, l.variant, coalesce(h.match_id, l.hand_id) as c, l.hand_id, l.a, o.player as b,
       ((o.seat - l.seat) % o.seats + o.seats) % o.seats as place, coalesce(l.taker = o.player, false) as taken
from leads l
join s me on me.hand_id = l.hand_id and me.game = l.game and me.seat = l.seat
join s o on o.hand_id = l.hand_id and o.game = l.game and o.side <> me.side
join hands h on h.id = l.hand_id and h.game = l.game
