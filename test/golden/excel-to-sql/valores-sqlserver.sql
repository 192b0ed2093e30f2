CREATE TABLE [datos] (
  [Id] NVARCHAR(20),
  [Texto] NVARCHAR(100),
  [Nota'; DROP TABLE x; --] NVARCHAR(20),
  [Ruta\] NVARCHAR(20),
  [Entero] INT,
  [Grande] BIGINT,
  [Decimal] DECIMAL(21,17),
  [Doble] FLOAT,
  [Fecha] DATE,
  [Momento] DATETIME2(3),
  [Hora] TIME(3),
  [Activo] BIT,
  [Mixta] NVARCHAR(10),
  [Vacía] NVARCHAR(10)
);

INSERT INTO [datos] ([Id], [Texto], [Nota'; DROP TABLE x; --], [Ruta\], [Entero], [Grande], [Decimal], [Doble], [Fecha], [Momento], [Hora], [Activo], [Mixta], [Vacía]) VALUES
  (N'00123', N'Muñoz Peña 😀', N'''; DROP TABLE x; --', N'C:\temp\new', 1, 3000000000, 0.30000000000000004, 1E-40, '2024-01-15', '2024-02-29T13:45:00', '13:45:30', 1, N'00123', NULL),
  (N'4111111111111111', N'línea 1
línea 2
	fin', N'O''Brien \'' \\', N'\', -2, -9007199254740991, 1250.5, 1.5, '2023-12-31', '2024-01-01T00:00:00', '00:00:01.250', 0, N'42', NULL),
  (N'007', N'GO
G' + N'O
  g' + N'o 2
/* no */ -- nada $$x$$ `b` [c] "d"; \' + N'
sigue \', N'#N/A', N'\\server\share\', 0, 1000000000000000000, -3, 2.5E-300, NULL, '2024-03-01T10:00:00.123', NULL, NULL, N'2024-01-15', NULL),
  (N'  dos  espacios  ', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, N'true', NULL);
