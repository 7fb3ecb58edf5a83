-- Legal played hands of the chosen game / variant with each seat: the base of every fraud
-- screen. `ts`: start time in seconds (the record's `time`; without one, the hand's place
-- in id order, a minute apart). `u`: the seat's share of the coins (points when no coins)
-- the hand moved, in [-1, 1]: winners' shares add up to 1. `side`: seats sharing a role
-- (the game's, as its rows name them in `seats`) play on one side; a role held by one seat
-- or no role (each for himself) makes a side of one. `points`: the seat's points (coins when
-- no points): the hand's multiplier is in them, a room's coin stake is not.
create or replace temp table fraud_seats as
with h as (
    select l.game, l.variant, l.hand_id, epoch(try_cast(hd.time as timestamptz)) as t0,
           row_number() over (partition by l.game, l.variant order by hd.time nulls last, l.hand_id) as k
    from played($game, $variant) l
    join hands hd on hd.id = l.hand_id and hd.game = l.game
    where not coalesce(l.escape is not null, false)
), s as (
    select h.game, h.variant, h.hand_id, coalesce(h.t0, 60.0 * h.k) as ts, h.t0 is not null as timed, s.seat, s.player, s.role,
           coalesce(s.coin, s.score, 0) as result, coalesce(s.score, s.coin, 0) as points,
           count(*) over (partition by h.game, h.hand_id, s.role) as role_size
    from h join seats s on s.hand_id = h.hand_id and s.game = h.game
    where s.player is not null
)
select *,
       case when role is not null and role_size > 1 then role else 'seat ' || seat end as side,
       case when sum(abs(result)) over (partition by game, hand_id) = 0 then 0.0
            else result / (sum(abs(result)) over (partition by game, hand_id) / 2) end as u
from s;
