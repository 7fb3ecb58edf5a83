-- The players' rating from their decisions reviewed (paipu review DS; docs/review.md):
-- the review columns of the players table (analysis/rating.py writes them), per game and
-- variant the 20 players with the most decisions reviewed. Run only when the dataset has a
-- review (its reviewed and players tables: analysis.NEEDS); empty otherwise.
-- matches / mistakes / blunders: counts, with their rate over the decisions and its 95%
-- Wilson interval (_lo, _hi); mean_loss: points of win probability, 95% t interval
-- clustered by hand (loss_lo, loss_hi).
select game, variant, player,
       review_hands as hands, review_decisions as decisions,
       review_matches as matches, review_match_rate as match_rate,
       review_match_lo as match_lo, review_match_hi as match_hi,
       review_mean_loss as mean_loss, review_loss_lo as loss_lo, review_loss_hi as loss_hi,
       review_mistakes as mistakes, review_mistake_rate as mistake_rate,
       review_mistake_lo as mistake_lo, review_mistake_hi as mistake_hi,
       review_blunders as blunders, review_blunder_rate as blunder_rate,
       review_blunder_lo as blunder_lo, review_blunder_hi as blunder_hi
from players
where review_decisions > 0
  and ($game is null or game = $game) and ($variant is null or variant = $variant)
qualify row_number() over (partition by game, variant order by review_decisions desc, player) <= 20
order by game, variant, decisions desc, player
