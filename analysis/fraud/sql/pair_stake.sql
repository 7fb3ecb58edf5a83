-- Chip flow by stake: for each ordered pair (d, r) of opponents, d's heavy losses and r's
-- heavy wins in the hands they met, next to each one's in all other hands. A loss is heavy
-- when its size in points (coins when no points: the multiplier is in them, the room's coin
-- stake is not, which would otherwise decide what is heavy) reaches the 90% quantile of the
-- loss sizes of every seat of the same game, variant and role (a seat that holds a role
-- alone may pay every other seat); a win likewise. The population's quantile, not the player's own: a dumper's
-- thrown hands would raise its own. A dumper who throws only hands
-- at high multipliers loses like anyone else hand by hand in share, but its heavy losses
-- bunch at the receiver's table.
with thr as (
    select game, variant, coalesce(role, '') as role,
           quantile_cont(-points::double, 0.9) filter (where points < 0) as t_loss,
           quantile_cont(points::double, 0.9) filter (where points > 0) as t_win
    from fraud_seats group by all
), s as (
    select f.game, f.variant, f.hand_id, f.player, f.side, f.points, t.t_loss,
           coalesce(f.points < 0 and -f.points >= t.t_loss, false) as heavy_loss,
           coalesce(f.points > 0 and f.points >= t.t_win, false) as heavy_win
    from fraud_seats f join thr t on t.game = f.game and t.variant = f.variant and t.role = coalesce(f.role, '')
), opp as (
    select d.game, d.variant, d.player as d, r.player as r, count(*) as n_with,
           count(*) filter (where d.heavy_loss) as d_heavy_with,
           count(*) filter (where r.heavy_win) as r_heavy_with,
           sum(-d.points::double) filter (where d.heavy_loss) as d_heavy_coins,
           min(d.t_loss) filter (where d.heavy_loss) as t_loss
    from s d
    join s r on r.game = d.game and r.hand_id = d.hand_id and r.side <> d.side and r.player <> d.player
    group by all
    having count(*) >= $min_pair
), tot as (
    select game, variant, player, count(*) as n, count(*) filter (where heavy_loss) as heavy_losses,
           count(*) filter (where heavy_win) as heavy_wins
    from s group by all
)
select o.game, o.variant, o.d, o.r, o.n_with, o.d_heavy_with, o.r_heavy_with, coalesce(o.d_heavy_coins, 0) as d_heavy_coins,
       td.n - o.n_with as d_n_other, td.heavy_losses - o.d_heavy_with as d_heavy_other,
       tr.n - o.n_with as r_n_other, tr.heavy_wins - o.r_heavy_with as r_heavy_other,
       o.t_loss
from opp o
join tot td on td.game = o.game and td.variant = o.variant and td.player = o.d
join tot tr on tr.game = o.game and tr.variant = o.variant and tr.player = o.r
order by o.game, o.variant, o.d, o.r
