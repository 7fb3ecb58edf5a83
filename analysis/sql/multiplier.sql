-- Distribution of the final multiplier (games that have one; redeals and escapes excluded).
select game, variant, setting, multiplier,
       count(*) as hands,
       count(*) / sum(count(*)) over (partition by game, variant, setting) as share
from legal($game, $variant)
where multiplier is not null and winner is not null
group by game, variant, setting, multiplier
order by all
