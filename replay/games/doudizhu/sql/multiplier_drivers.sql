-- What builds the multiplier: hands and mean multiplier by each driver's level (Dou Dizhu).
with decided as (select * from legal($game, $variant) where game = 'doudizhu' and winner is not null)
select game, variant, setting, 'grabs' as driver, cast(grabs as varchar) as level,
       count(*) as hands, avg(multiplier) as mean_multiplier, stddev_samp(multiplier) as sd
from decided group by all
union all
select game, variant, setting, 'show', cast(show_factor as varchar), count(*), avg(multiplier), stddev_samp(multiplier) from decided group by all
union all
select game, variant, setting, 'bombs', cast(bombs + rockets as varchar), count(*), avg(multiplier), stddev_samp(multiplier) from decided group by all
union all
select game, variant, setting, 'spring', coalesce(spring_kind, 'none'), count(*), avg(multiplier), stddev_samp(multiplier) from decided group by all
order by game, variant, setting, driver, level
