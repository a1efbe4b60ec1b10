# Exports the outlines make_boundaries.py simplifies, from the `maps` package (Debian
# r-cran-maps; its county and state outlines come from US Census data, the world outlines from
# the CIA World Data Bank II). Rerun from this folder after changing a region:
#     Rscript export_outlines.R
library(maps)

export <- function(database, region, file) {
  m <- map(database, region, plot = FALSE, fill = TRUE, exact = FALSE)
  # Polygons are separated by NA rows; number them so the CSV needs no blank lines.
  polygon <- cumsum(is.na(m$x)) + 1
  keep <- !is.na(m$x)
  write.csv(data.frame(polygon = polygon[keep], lon = round(m$x[keep], 5), lat = round(m$y[keep], 5)),
            file, row.names = FALSE)
}

export("county", "california,san luis obispo", "san_luis_obispo_county.csv")
export("state", "california", "california.csv")
export("world", "USA", "united_states.csv")
