-- Per-hand figures of hands whose deal was played under two or more rule settings of the
-- same variant (duplicate deals, `paipu simulate --compare`): one row per legal hand, the
-- deal as its pairing key, the figures every game has (analysis/compare.py: FIGURES). A
-- game's own figures come from the `sql/compare.sql` of its package, joined by hand. A
-- figure is null where it does not apply to the hand.
with dealt as (
    select l.*, md5(h.deal::varchar) as deal_key
    from legal($game, $variant) l join hands h on h.id = l.hand_id and h.game = l.game
),
shared as (
    select game, variant, deal_key from dealt group by all having count(distinct setting) > 1
)
select d.game, d.variant, d.setting, d.deal_key, d.hand_id,
       case when d.winner is not null and d.first_leader is not null then (d.winner = d.first_leader)::int end
           as first_leader_wins,
       (coalesce(d.bombs, 0) + coalesce(d.rockets, 0))::double as bombs,
       d.multiplier::double as multiplier,
       d.n_tricks::double as tricks,
       d.n_actions::double as actions
from dealt d join shared s using (game, variant, deal_key)
order by d.game, d.variant, d.deal_key, d.setting
