/// The dashboard's one stylesheet (`Templates/style.css`, compiled into the binary), served at
/// `/dashboard/style.css` (the pages' CSP allows no inline style). Plain CSS: readable on a phone (tables scroll
/// sideways, forms stack), light and dark.
enum DashboardStyle {
    static let css = DashboardTemplates.text(PackageResources.style_css)
}
