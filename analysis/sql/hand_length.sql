-- Hand length in actions and in tricks (legal hands that were played, not redealt).
select game, variant, setting,
       count(*) as hands,
       avg(n_actions) as mean_actions,
       quantile_cont(n_actions, 0.5) as median_actions,
       quantile_cont(n_actions, 0.9) as p90_actions,
       max(n_actions) as max_actions,
       avg(n_tricks) as mean_tricks,
       quantile_cont(n_tricks, 0.5) as median_tricks,
       quantile_cont(n_tricks, 0.9) as p90_tricks,
       max(n_tricks) as max_tricks
from played($game, $variant)
group by all
order by all
