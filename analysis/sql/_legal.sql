-- legal hands of the chosen game / variant (null: all), with their rule setting
-- (materialised once per connection: every statistic starts from it)
create or replace temp table legal_all as
    select *, coalesce(params, '') as setting from outcomes where ok;
create or replace macro legal(g, v) as table
    select * from legal_all where (g is null or game = g) and (v is null or variant = v);
-- legal hands that were played (a redeal has no play)
create or replace macro played(g, v) as table
    select * from legal(g, v) where not coalesce(redeal, false);
