"""Texts shared by the training-set tests: prose every FineWeb filter keeps, and pages each rule removes."""

GOOD_PROSE = """The river runs past the old mill and through the village, where the children play on its banks in summer.

Every spring the water rises with the melting snow, and the farmers move their sheep to the higher fields.

The mill was built two hundred years ago by a family of weavers who came from the north with their looms.

Today it is a museum, and visitors can see how the wheel turned the great stones that ground the grain.

In the evening the light falls on the water and the swallows fly low over the meadows by the river."""

MENU_PAGE = "\n".join(["Home", "About us", "Products", "Contact", "Login", "Cart"] * 3)

FRENCH_PROSE = """La rivière passe devant le vieux moulin et traverse le village, où les enfants jouent sur ses rives en été.

Chaque printemps, l'eau monte avec la fonte des neiges, et les paysans mènent leurs moutons vers les champs plus hauts.

Le moulin a été construit il y a deux cents ans par une famille de tisserands venue du nord avec ses métiers.

Aujourd'hui c'est un musée, et les visiteurs peuvent voir comment la roue faisait tourner les grandes meules."""
