-- Chip flow by stake: for each ordered pair (d, r) of opponents, r's net gain from d in the
-- hands they met, in points (coins when no points: the hand's multiplier is in them, a
-- room's coin stake is not), next to each one's gains from every other opponent: `net` of
-- a hand = d's loss x r's share of the winnings - r's loss x d's share. And how often d
-- raised the stake itself (called, grabbed or showed, or played a bomb) and then lost to r,
-- next to how often it raised and lost to its other opponents, opponent by opponent: a
-- seat that holds a role alone has every other seat as its opponent, one of a side fewer,
-- so that r sits against d more often when d holds the role one raises for; counted by hand, d's hands with r would hold more of its
-- raises than its others for that alone.
with pos as (
    select game, hand_id, sum(greatest(points, 0)) as pos from fraud_seats group by all
), bids as (
    select f.game, f.hand_id, f.seat,
           bool_or(a.act = 'show' or (a.act = 'bid' and a.call) or (a.act = 'grab' and a.grab)) as bid
    from fraud_seats f join actions a on a.hand_id = f.hand_id and a.game = f.game and a.seat = f.seat
    where a.act in ('bid', 'grab', 'show')
    group by all
), s as (
    select f.game, f.variant, f.hand_id, f.player, f.side, f.points::double as points,
           coalesce(b.bid, false) or coalesce(st.bombs_played, 0) > 0 as raised
    from fraud_seats f
    join seats st on st.hand_id = f.hand_id and st.game = f.game and st.seat = f.seat
    left join bids b on b.game = f.game and b.hand_id = f.hand_id and b.seat = f.seat
), x as (
    select d.game, d.variant, d.hand_id, d.player as d, r.player as r,
           case when p.pos > 0 then (greatest(-d.points, 0) * greatest(r.points, 0)
                                     - greatest(-r.points, 0) * greatest(d.points, 0)) / p.pos else 0 end as net,
           d.raised and d.points < 0 and r.points > 0 as raised_lost_to_r
    from s d
    join s r on r.game = d.game and r.hand_id = d.hand_id and r.side <> d.side and r.player <> d.player
    join pos p on p.game = d.game and p.hand_id = d.hand_id
), pair as (
    select game, variant, d, r, count(*) as n_with, sum(net) as net, sum(net * net) as net2,
           count(*) filter (where raised_lost_to_r) as raised_lost
    from x group by all
    having count(*) >= $min_pair
), gain as (  -- each player's gains from its opponents, hand by opponent
    select game, variant, r as player, count(*) as n, sum(net) as s, sum(net * net) as s2 from x group by all
), raises as (  -- each player's opponents, hand by opponent, and how often it raised and lost to them
    select game, variant, d as player, count(*) as n, count(*) filter (where raised_lost_to_r) as raised_lost
    from x group by all
)
select o.game, o.variant, o.d, o.r, o.n_with, o.net, o.net2, o.raised_lost,
       g_r.n - o.n_with as r_n_other, g_r.s - o.net as r_gain_other, g_r.s2 - o.net2 as r_gain2_other,
       g_d.n - o.n_with as d_n_other, g_d.s + o.net as d_gain_other, g_d.s2 - o.net2 as d_gain2_other,
       hd.n - o.n_with as d_hands_other, hd.raised_lost - o.raised_lost as d_raised_lost_other
from pair o
join gain g_r on g_r.game = o.game and g_r.variant = o.variant and g_r.player = o.r
join gain g_d on g_d.game = o.game and g_d.variant = o.variant and g_d.player = o.d
join raises hd on hd.game = o.game and hd.variant = o.variant and hd.player = o.d
order by o.game, o.variant, o.d, o.r
