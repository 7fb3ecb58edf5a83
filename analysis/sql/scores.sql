-- Points and coins: what the winner gains, and the coins that change hands (decided legal hands).
select game, variant, setting,
       count(*) as hands,
       avg(list_max(scores)) as mean_top_score,
       quantile_cont(list_max(scores), 0.5) as median_top_score,
       quantile_cont(list_max(scores), 0.9) as p90_top_score,
       max(list_max(scores)) as max_top_score,
       avg(list_sum(list_transform(coins, lambda x: abs(x))) / 2) as mean_coins_moved
from legal($game, $variant)
where winner is not null
group by all
order by all
