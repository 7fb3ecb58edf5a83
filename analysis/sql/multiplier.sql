-- Distribution of the final multiplier (games that have one; redeals and escapes excluded).
select game, variant, setting, multiplier,
       count(*) as hands,
       sum(count(*)) over (partition by game, variant, setting) as total,
       count(*) / total as share,
       wilson_lo(count(*), total) as lo,
       wilson_hi(count(*), total) as hi
from legal($game, $variant)
where multiplier is not null and winner is not null
group by game, variant, setting, multiplier
order by all
