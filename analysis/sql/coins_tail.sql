-- The tail of what a hand costs: coins (and points) that change hands per decided hand.
select game, variant, setting, measure,
       count(*) as hands,
       avg(v) as mean,
       quantile_cont(v, 0.5) as p50,
       quantile_cont(v, 0.9) as p90,
       quantile_cont(v, 0.99) as p99,
       max(v) as max
from (
    select game, variant, setting, 'coins' as measure, list_sum(list_transform(coins, lambda x: abs(x))) / 2 as v
    from legal($game, $variant) where winner is not null and coins is not null
    union all
    select game, variant, setting, 'points', list_sum(list_transform(scores, lambda x: abs(x))) / 2
    from legal($game, $variant) where winner is not null and scores is not null
)
group by all
order by all
