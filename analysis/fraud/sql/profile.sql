-- The players table: one row per player, game and variant. Every rate has its count of
-- opportunities (n_…) and a 95% Wilson interval (…_lo, …_hi).
with base as (
    select game, variant, player,
           count(*) as hands,
           count(*) filter (where result > 0) as wins,
           sum(result) as net,
           string_agg(distinct role, ', ' order by role) as roles,
           count(distinct side) filter (where side not like 'seat %') as sides_played,
           min(ts) as first_ts, max(ts) as last_ts
    from fraud_seats group by all
), money as (
    select f.game, f.variant, f.player, sum(s.score) as points, sum(s.coin) as coins,
           avg(s.bombs_played) as bombs_played_per_hand, avg(s.bombs_held) as bombs_held_per_hand
    from fraud_seats f join seats s on s.hand_id = f.hand_id and s.game = f.game and s.seat = f.seat
    group by all
), bids as (
    select f.game, f.variant, f.player,
           count(*) filter (where a.act = 'bid') as n_bid, count(*) filter (where a.act = 'bid' and a.call) as calls,
           count(*) filter (where a.act = 'grab') as n_grab, count(*) filter (where a.act = 'grab' and a.grab) as grabs,
           count(distinct f.hand_id) filter (where a.act = 'show') as shows
    from fraud_seats f join actions a on a.hand_id = f.hand_id and a.game = f.game and a.seat = f.seat
    where a.act in ('bid', 'grab', 'show')
    group by all
), dec as (
    select d.game, d.variant, d.player,
           count(*) filter (where d.can_beat and d.relation = 'opponent') as n_able_opp,
           count(*) filter (where d.spared and d.relation = 'opponent') as spared_opp,
           count(*) filter (where d.can_beat and d.relation = 'partner') as n_able_partner,
           count(*) filter (where d.spared and d.relation = 'partner') as spared_partner,
           avg(d.lead_low) as lead_low,
           count(d.think_ms) as n_think,
           median(d.think_ms) as think_median,
           quantile_cont(d.think_ms, 0.75) - quantile_cont(d.think_ms, 0.25) as think_iqr,
           median(d.think_ms) filter (where d.options = 1) as think_forced,
           corr(ln(greatest(d.think_ms, 1)), ln(d.options)) as think_options_corr
    from decisions d join (select distinct game, hand_id from fraud_seats) f on f.hand_id = d.hand_id and f.game = d.game
    group by all
), pause as (
    select d.game, d.variant, d.player, count(*) filter (where d.think_ms > 4 * m.med) as long_pauses
    from decisions d
    join (select distinct game, hand_id from fraud_seats) f on f.hand_id = d.hand_id and f.game = d.game
    join (select game, variant, player, median(think_ms) as med from decisions group by all) m
      on m.game = d.game and m.variant = d.variant and m.player = d.player
    where d.think_ms is not null
    group by all
), hours as (
    select game, variant, player,
           count(distinct hour(to_timestamp(ts))) as hours_of_day,
           count(*) filter (where hour(to_timestamp(ts)) < 6) as night_hands
    from fraud_seats group by all
), gaps as (
    select game, variant, player, ts,
           sum(case when ts - prev > 1800 or prev is null then 1 else 0 end)
               over (partition by game, variant, player order by ts rows unbounded preceding) as session
    from (select game, variant, player, ts,
                 lag(ts) over (partition by game, variant, player order by ts) as prev from fraud_seats)
), sessions as (
    select game, variant, player, count(distinct session) as sessions,
           max(span) / 3600 as longest_session_h
    from (select game, variant, player, session, max(ts) - min(ts) as span from gaps group by all)
    group by all
)
select b.game, b.variant, b.player, b.hands, b.roles,
       b.wins, b.wins / b.hands as win_rate, wilson_lo(b.wins, b.hands) as win_lo, wilson_hi(b.wins, b.hands) as win_hi,
       m.points, m.coins, b.net as net_result, m.bombs_played_per_hand, m.bombs_held_per_hand,
       coalesce(bi.n_bid, 0) as n_bid, bi.calls / nullif(bi.n_bid, 0) as bid_rate,
       wilson_lo(bi.calls, bi.n_bid) as bid_lo, wilson_hi(bi.calls, bi.n_bid) as bid_hi,
       coalesce(bi.n_grab, 0) as n_grab, bi.grabs / nullif(bi.n_grab, 0) as grab_rate,
       wilson_lo(bi.grabs, bi.n_grab) as grab_lo, wilson_hi(bi.grabs, bi.n_grab) as grab_hi,
       coalesce(bi.shows, 0) / b.hands as show_rate,
       wilson_lo(coalesce(bi.shows, 0), b.hands) as show_lo, wilson_hi(coalesce(bi.shows, 0), b.hands) as show_hi,
       d.n_able_opp, d.spared_opp / nullif(d.n_able_opp, 0) as spare_opp_rate,
       wilson_lo(d.spared_opp, d.n_able_opp) as spare_opp_lo, wilson_hi(d.spared_opp, d.n_able_opp) as spare_opp_hi,
       d.n_able_partner, d.spared_partner / nullif(d.n_able_partner, 0) as spare_partner_rate,
       wilson_lo(d.spared_partner, d.n_able_partner) as spare_partner_lo,
       wilson_hi(d.spared_partner, d.n_able_partner) as spare_partner_hi,
       d.lead_low, d.n_think, d.think_median, d.think_iqr, d.think_forced, d.think_options_corr,
       p.long_pauses / nullif(d.n_think, 0) as long_pause_rate,
       wilson_lo(p.long_pauses, d.n_think) as long_pause_lo, wilson_hi(p.long_pauses, d.n_think) as long_pause_hi,
       h.hours_of_day, h.night_hands / b.hands as night_rate,
       wilson_lo(h.night_hands, b.hands) as night_lo, wilson_hi(h.night_hands, b.hands) as night_hi,
       se.sessions, se.longest_session_h
from base b
left join money m using (game, variant, player)
left join bids bi using (game, variant, player)
left join dec d using (game, variant, player)
left join pause p using (game, variant, player)
left join hours h using (game, variant, player)
left join sessions se using (game, variant, player)
order by b.game, b.variant, b.hands desc, b.player
