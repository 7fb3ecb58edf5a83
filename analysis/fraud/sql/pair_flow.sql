-- Chip flow: for each ordered pair (d, r) of opponents at a table, d's and r's results
-- (u, share of the coins the hand moved) in those hands, next to each one's results in
-- all their other hands; `flow`: the share of d's loss that went to r, summed
-- (`coins_flow`: the same in coins).
with opp as (
    select d.game, d.variant, d.player as d, r.player as r,
           count(*) as n_with,
           sum(d.u) as sd, sum(d.u * d.u) as sd2, sum(r.u) as sr, sum(r.u * r.u) as sr2,
           count(*) filter (where d.result < 0) as d_losses,
           sum(greatest(-d.u, 0) * greatest(r.u, 0)) as flow,
           sum(case when p.pos > 0 then greatest(-d.result, 0) * greatest(r.result, 0) / p.pos else 0 end) as coins_flow
    from fraud_seats d
    join fraud_seats r on r.game = d.game and r.hand_id = d.hand_id and r.side <> d.side and r.player <> d.player
    join (select game, hand_id, sum(greatest(result, 0)) as pos from fraud_seats group by all) p
      on p.game = d.game and p.hand_id = d.hand_id
    group by all
    having count(*) >= $min_pair
), tot as (
    select game, variant, player, count(*) as n, sum(u) as s, sum(u * u) as s2 from fraud_seats group by all
)
select o.game, o.variant, o.d, o.r, o.n_with, o.d_losses, o.flow, o.coins_flow,
       o.sd / o.n_with as d_mean_with, (td.s - o.sd) / nullif(td.n - o.n_with, 0) as d_mean_other,
       o.sd2 / o.n_with - (o.sd / o.n_with) ^ 2 as d_var_with,
       (td.s2 - o.sd2) / nullif(td.n - o.n_with, 0) - ((td.s - o.sd) / nullif(td.n - o.n_with, 0)) ^ 2 as d_var_other,
       td.n - o.n_with as d_n_other,
       o.sr / o.n_with as r_mean_with, (tr.s - o.sr) / nullif(tr.n - o.n_with, 0) as r_mean_other,
       o.sr2 / o.n_with - (o.sr / o.n_with) ^ 2 as r_var_with,
       (tr.s2 - o.sr2) / nullif(tr.n - o.n_with, 0) - ((tr.s - o.sr) / nullif(tr.n - o.n_with, 0)) ^ 2 as r_var_other,
       tr.n - o.n_with as r_n_other
from opp o
join tot td on td.game = o.game and td.variant = o.variant and td.player = o.d
join tot tr on tr.game = o.game and tr.variant = o.variant and tr.player = o.r
