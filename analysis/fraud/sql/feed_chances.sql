-- Feeding: every lead of player a, once per opponent b at the table, and whether b was the
-- one who took the trick over (made the first play after the lead). A colluder who knows
-- its friend's cards leads what the friend can beat and the others cannot; under a rule that
-- a seat must play when able, this is how collusion shows, since sparing is not allowed.
-- `place`: seats from a to b in turn order (whether b acts first or after a third seat).
-- A lead is a chance of b only if it reached b: every seat between a and b passed on it
-- (the taker, if any, sits at b's place or after) and no opponent of a between them passed
-- on it while able to beat it (a spare). Otherwise whether b took it over is not b's
-- doing: a colluder between them who spares a's lead hands the take-over to the seat
-- after it (and a chosen pass leaves b the leads easier to take), and until 2026-12-04
-- that seat (honest) was named fed and a fed it.
-- `c`: the sitting (a match; a hand outside matches) for the over-dispersion.
create or replace temp table feed_chances as
with p as (
    select game, variant, hand_id, idx, seat, player, lead,
           lead(player) over w as next_player, lead(seat) over w as next_seat, lead(lead) over w as next_lead,
           lead(idx) over w as next_idx
    from decisions
    where act = 'play'
    window w as (partition by game, hand_id order by idx)
), s as (
    select game, hand_id, seat, player, side, count(*) over (partition by game, hand_id) as seats from fraud_seats
), leads as (  -- with the leader's side and the seats at its table
    select p.game, p.variant, p.hand_id, p.idx, p.seat, p.player as a, p.next_idx, me.side, me.seats,
           case when p.next_lead = false then p.next_player end as taker,
           case when p.next_lead = false then p.next_seat end as taker_seat
    from p
    join s me on me.hand_id = p.hand_id and me.game = p.game and me.seat = p.seat
    where p.lead and p.player is not null
), spares as (  -- the first place after a's lead where an opponent of a spared it
    select l.game, l.hand_id, l.idx, min(((d.seat - l.seat) % l.seats + l.seats) % l.seats) as spare_place
    from leads l
    join decisions d on d.game = l.game and d.hand_id = l.hand_id and d.act = 'pass' and d.spared
         and d.idx > l.idx and (l.next_idx is null or d.idx < l.next_idx)
    join s o on o.hand_id = l.hand_id and o.game = l.game and o.seat = d.seat and o.side <> l.side
    group by all
), chances as (
    select l.game, l.variant, l.hand_id, l.a, o.player as b,
           ((o.seat - l.seat) % l.seats + l.seats) % l.seats as place,
           ((l.taker_seat - l.seat) % l.seats + l.seats) % l.seats as taker_place, sp.spare_place,
           coalesce(l.taker = o.player, false) as taken
    from leads l
    join s o on o.hand_id = l.hand_id and o.game = l.game and o.side <> l.side
    left join spares sp on sp.game = l.game and sp.hand_id = l.hand_id and sp.idx = l.idx
)
select x.game, x.variant, coalesce(h.match_id, x.hand_id) as c, x.hand_id, x.a, x.b, x.place, x.taken
from chances x
join hands h on h.id = x.hand_id and h.game = x.game
where (x.taker_place is null or x.taker_place >= x.place) and (x.spare_place is null or x.spare_place >= x.place)
